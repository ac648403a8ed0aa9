/** Count of lines, not counting the empty string after a final newline ("a\nb\n" → 2, "" → 0). */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}
