/** Upper-cases the first letter of every word: 'ralph loop' → 'Ralph Loop'. */
export function capitalize(text) {
  return text.replace(/\b\p{L}/gu, (letter) => letter.toUpperCase());
}
