/**
 * What counts as an address (docs/redaction.md): one row per case, the text in and the text out
 * of the output redactor (src/engine/serve/redact.ts). The SQL rules (src/sql/sandbox/redaction-rules.ts) are
 * held to the same cases: they must hide every address these hide.
 */

export const R = 'REDACTED';

/** [what the case is about, input, expected output]; `null` expected means unchanged. */
export type Case = [string, string, string | null];

export const IPV4: Case[] = [
  ['bare address', '10.0.0.1', R],
  ['in a sentence', 'client 192.168.1.20 connected', `client ${R} connected`],
  ['octets at their limits', '0.0.0.0 255.255.255.255', `${R} ${R}`],
  ['followed by :port (the port stays)', 'connect 10.0.0.1:5432 refused', `connect ${R}:5432 refused`],
  ['host of a URL, path decimals untouched', 'http://203.0.113.9:8080/v1.2/x', `http://${R}:8080/v1.2/x`],
  ['sentence-final dot', 'blocked 203.0.113.9.', `blocked ${R}.`],
  ['after = and before a comma', 'x_real_ip=203.0.113.9,next', `x_real_ip=${R},next`],
  ['quoted', `{"ip":"203.0.113.9"}`, `{"ip":"${R}"}`],
  ['user@host:port of a pooler line', 'postgres/authenticator@10.1.2.3:6543 login', `postgres/authenticator@${R}:6543 login`],
  ['CIDR prefix (the length stays)', 'allow 10.0.0.0/8', `allow ${R}/8`],
  ['as a path segment', 'GET /geo/8.8.8.8', `GET /geo/${R}`],
  ['after a host and a slash', 'https://ipinfo.io/8.8.8.8/json', `https://ipinfo.io/${R}/json`],
  ['inside a hostname', 'resolve 1.2.3.4.nip.io', `resolve ${R}.nip.io`],
  ['two in a row, comma-separated', 'x-forwarded-for: 198.51.100.7, 10.0.0.1', `x-forwarded-for: ${R}, ${R}`],
  ['an octet over 255', '999.1.1.1', null],
  ['256 is too big', '10.0.0.256', null],
  ['four-digit octet', '1234.1.1.1', null],
  ['five numbers (OID-like)', '1.2.3.4.5', null],
  ['three-part version', 'version 1.2.3', null],
  ['glued to a word', 'build v1.2.3.4', null],
  ['user-agent product version', 'Mozilla/5.0 (X11) Chrome/126.0.0.0 Safari/537.36', null],
  ['word/1.2.3.4 reads as a product version too', 'lookup ip/8.8.8.8', null],
  ['decimals and percentages', 'took 3.14 ms, 0.4% of 10.5', null],
];

export const IPV6: Case[] = [
  ['full form', '2001:0db8:85a3:0000:0000:8a2e:0370:7334', R],
  ['compressed', 'from 2001:db8::ff00:42:8329 ok', `from ${R} ok`],
  ['loopback ::1', 'listening on ::1', `listening on ${R}`],
  ['trailing ::', 'prefix fe80::', `prefix ${R}`],
  ['upper case', 'FE80::ABCD', R],
  ['IPv4-mapped', 'client ::ffff:192.0.2.1 says hi', `client ${R} says hi`],
  ['NAT64 with an IPv4 tail', '64:ff9b::192.0.2.33', R],
  ['full form with an IPv4 tail', '0:0:0:0:0:ffff:192.0.2.1', R],
  ['with a zone', 'link fe80::1%eth0 up', `link ${R} up`],
  ['in brackets with a port', 'connect [2001:db8::1]:8080', `connect [${R}]:8080`],
  ['URL with an encoded zone', 'http://[fe80::1%25eth0]:80/', `http://[${R}]:80/`],
  ['followed by a comma (a known peer misses this)', '2001:db8::1, 10.0.0.1', `${R}, ${R}`],
  ['comma-joined list after =', 'ips=2001:db8::1,2001:db8::2;', `ips=${R},${R};`],
  ['single and double quotes', `'2001:db8::1' "fe80::2"`, `'${R}' "${R}"`],
  ['after key: without a space', 'source:2001:db8::1', `source:${R}`],
  ['unbracketed, then :port (one valid address: the port goes too)', 'login from 2a02:1a2b:3c:4d::5e:6543 ok', `login from ${R} ok`],
  ['followed by a colon and a message', 'error at 2001:db8::1: refused', `error at ${R}: refused`],
  ['8-group EUI-64-looking hex is a valid address', '00:1a:2b:ff:fe:3c:4d:5e', R],
  ['hex words with :: are a valid address', 'dead::beef', R],
  ['time', '12:34:56', null],
  ['four-part time-like', '10:20:30:40', null],
  ['a:b:c', 'a:b:c', null],
  ['hex words, one colon', 'dead:beef', null],
  ['MAC address (6 groups)', '00:1a:2b:3c:4d:5e', null],
  ['scope operators', 'std::string Foo::Bar Cache::Dead', null],
  ['bare :: and [::]:port', 'listening on [::]:4000 x :: y', null],
  ['nine groups', '1:2:3:4:5:6:7:8:9', null],
  ['two ::', '2001::db8::1', null],
  ['group of five hex digits', '12345::1', null],
  ['ISO timestamp', '2024-05-01T10:20:30.123456Z', null],
  ['URL with a port', 'https://example.com:8443/a/b?x=1', null],
  ['UUID', '550e8400-e29b-41d4-a716-446655440000', null],
  ['Elixir atoms', 'Billing metrics: [:realtime, :channel_events]', null],
];

export const EMAIL: Case[] = [
  ['plain', 'alice@example.com', R],
  ['+tag and dots', 'alice.smith+billing@example.com', R],
  ['subdomains', 'to bob@mail.eu.example.co.uk now', `to ${R} now`],
  ['sentence-final dot', 'sent to carol@example.org.', `sent to ${R}.`],
  ['PostgREST filter (the operator goes with it)', '?email=eq.carol@example.net&limit=1', `?email=${R}&limit=1`],
  ['SQL literal', "WHERE email = 'dave@acme.test'", `WHERE email = '${R}'`],
  ['angle brackets', 'From: Erin <erin@corp.example>', `From: Erin <${R}>`],
  ['URL-encoded @', '?email=alice%40example.com', `?email=${R}`],
  ['mailto:', 'mailto:frank@example.com', `mailto:${R}`],
  ['other scripts', 'josé@bücher.de', R],
  ['two, comma-separated', 'a@example.com,b@example.com', `${R},${R}`],
  ['local part that looks like an IPv4 address', 'from 10.0.0.1@example.com', `from ${R}`],
  ['file name in e-mail form', 'logo@2x.png', R],
  ['decorator or handle', '@param @alice', null],
  ['no dot in the domain', 'user@localhost', null],
  ['package@version', 'supabase-js@2.43.4 @supabase/ssr', null],
  ['one-letter TLD', 'foo@bar.c', null],
  ['numeric TLD (its IPv4 part is still redacted)', 'admin@10.0.0.1', `admin@${R}`],
  ['nothing before @', 'reach us @ example.com', null],
];

export const MIXED: Case[] = [
  ['all three kinds', 'from alice@example.com at 10.0.0.1 via [2001:db8::1]:443', `from ${R} at ${R} via [${R}]:443`],
  [
    'an edge log line',
    'GET | 200 | 2a02:1a2b:3c:4d::5e | https://p.cannery.dev/rest/v1/t?email=eq.ivan.kim@acme.test | Chrome/126.0.0.0',
    `GET | 200 | ${R} | https://p.cannery.dev/rest/v1/t?email=${R} | Chrome/126.0.0.0`,
  ],
  ['no candidates at all', 'GET /rest/v1/todos?select=*', null],
  ['empty string', '', null],
];
