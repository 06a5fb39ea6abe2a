/**
 * Functions of the GoogleSQL reference that cannery refuses, each with the reason, as the generator
 * names it (`cannery check`, and the sandbox's 400): BigQuery has them, but the embedded engine
 * cannot give BigQuery's answer, or cannery has no data they work on.
 */

interface RefusedGroup {
  reason: string;
  names: readonly string[];
}

const GROUPS: readonly RefusedGroup[] = [
  { reason: 'it needs the public suffix list, which the embedded engine does not carry', names: ['net.reg_domain', 'net.public_suffix'] },
  { reason: 'collations change how comparisons, ORDER BY and GROUP BY order text; the embedded engine orders by code point', names: ['collate'] },
  { reason: 'it aggregates a measure, which cannery\'s sources have none of', names: ['agg'] },
  { reason: 'the embedded engine has no BigQuery user', names: ['session_user'] },
  { reason: 'BigQuery\'s HyperLogLog++ sketches are its own BYTES, buckets of the values\' Fingerprint2011 hashes, and its counts estimates from them, not the exact count even of a few values (two may share a bucket); cannery does not reproduce the hashing, the encoding or the estimate', names: ['hll_count.extract', 'hll_count.init', 'hll_count.merge', 'hll_count.merge_partial'] },
  { reason: 'cannery does not generate arrays of RANGEs yet', names: ['generate_range_array'] },
  { reason: 'it is a table function, which cannery reads none of', names: ['range_sessionize'] },
  { reason: 'cannery has no GEOGRAPHY type', names: ['s2_cellidfrompoint', 's2_coveringcellids', 'st_angle', 'st_area', 'st_asbinary', 'st_asgeojson', 'st_astext', 'st_azimuth', 'st_boundary', 'st_boundingbox', 'st_buffer', 'st_bufferwithtolerance', 'st_centroid', 'st_centroid_agg', 'st_closestpoint', 'st_clusterdbscan', 'st_contains', 'st_convexhull', 'st_coveredby', 'st_covers', 'st_difference', 'st_dimension', 'st_disjoint', 'st_distance', 'st_dump', 'st_dwithin', 'st_endpoint', 'st_equals', 'st_extent', 'st_exteriorring', 'st_geogfrom', 'st_geogfromgeojson', 'st_geogfromtext', 'st_geogfromwkb', 'st_geogpoint', 'st_geogpointfromgeohash', 'st_geohash', 'st_geometrytype', 'st_hausdorffdistance', 'st_interiorrings', 'st_intersection', 'st_intersects', 'st_intersectsbox', 'st_isclosed', 'st_iscollection', 'st_isempty', 'st_isring', 'st_length', 'st_lineinterpolatepoint', 'st_linelocatepoint', 'st_linesubstring', 'st_makeline', 'st_makepolygon', 'st_makepolygonoriented', 'st_maxdistance', 'st_npoints', 'st_numgeometries', 'st_numpoints', 'st_perimeter', 'st_pointn', 'st_simplify', 'st_snaptogrid', 'st_startpoint', 'st_touches', 'st_union', 'st_union_agg', 'st_within', 'st_x', 'st_y'] },
  { reason: 'encryption keysets live in BigQuery', names: ['aead.decrypt_bytes', 'aead.decrypt_string', 'aead.encrypt', 'deterministic_decrypt_bytes', 'deterministic_decrypt_string', 'deterministic_encrypt', 'keys.add_key_from_raw_bytes', 'keys.keyset_chain', 'keys.keyset_from_json', 'keys.keyset_length', 'keys.keyset_to_json', 'keys.new_keyset', 'keys.new_wrapped_keyset', 'keys.rewrap_keyset', 'keys.rotate_keyset', 'keys.rotate_wrapped_keyset', 'dlp_deterministic_decrypt', 'dlp_deterministic_encrypt', 'dlp_key_chain'] },
  { reason: 'it reads outside the query\'s sources', names: ['external_query', 'appends', 'changes', 'external_object_transform', 'gap_fill', 'search', 'vector_search'] },
];

/** Each refused function's name (lower case) and why, as `NAME (reason)`. */
export const REFUSED: Readonly<Record<string, string>> = Object.fromEntries(GROUPS.flatMap((group) => group.names.map((name) => [name, `${name.toUpperCase()} (${group.reason})`])));
