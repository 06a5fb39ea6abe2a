/**
 * Unicode's full case folding (ICU's foldCase, which NORMALIZE_AND_CASEFOLD applies after
 * normalizing): for every code point the lower case of its upper case, except for the few that
 * fold otherwise (checked against Python's str.casefold for all of Unicode 14): the dotless ı
 * stays, Cherokee letters fold to their capital forms, and the capital sharp s to "ss".
 */
function foldCodePoint(character: string): string {
  const code = character.codePointAt(0)!;
  if (code === 0x131 || (code >= 0x13a0 && code <= 0x13f5)) return character;
  if (code >= 0x13f8 && code <= 0x13fd) return String.fromCodePoint(code - 8);
  if (code >= 0xab70 && code <= 0xabbf) return String.fromCodePoint(code - 0xab70 + 0x13a0);
  if (code === 0x1e9e) return 'ss';
  return character.toUpperCase().toLowerCase();
}

export function foldCase(text: string): string {
  let out = '';
  for (const character of text) out += foldCodePoint(character);
  return out;
}
