/**
 * A wire item as one readable line for people (not for machines: types are dropped), e.g.
 * `{studentid: 1, name: "Ada", clubs: <<"chess", "robotics">>}`. Sets print as <<...>>.
 */
type Wire = Record<string, unknown>;

export function formatItem(item: Wire | undefined): string {
  if (item === undefined) return '(none)';
  return `{${Object.entries(item).map(([name, value]) => `${name}: ${formatValue(value as Wire)}`).join(', ')}}`;
}

function formatValue(value: Wire): string {
  const [type, payload] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
      return JSON.stringify(payload);
    case 'N':
    case 'BOOL':
      return String(payload);
    case 'NULL':
      return 'null';
    case 'B':
      return `b64:${String(payload)}`;
    case 'SS':
      return `<<${(payload as string[]).map((s) => JSON.stringify(s)).join(', ')}>>`;
    case 'NS':
      return `<<${(payload as string[]).join(', ')}>>`;
    case 'BS':
      return `<<${(payload as string[]).map((b) => `b64:${b}`).join(', ')}>>`;
    case 'L':
      return `[${(payload as Wire[]).map(formatValue).join(', ')}]`;
    case 'M':
      return formatItem(payload as Wire);
    default:
      return JSON.stringify(value);
  }
}
