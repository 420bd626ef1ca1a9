/**
 * Removes secrets from text that goes into the audit log: API keys and tokens by their known
 * shapes, `Authorization:` headers, passwords in URLs, and values of `--password`/`TOKEN=`-like
 * arguments. The log keeps what was attempted without becoming a copy of the secrets.
 */

const RULES: readonly [RegExp, string][] = [
  // user:password@host in URLs
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, '$1***@'],
  // Authorization / cookie / api-key style headers
  [
    /\b(authorization|proxy-authorization|cookie|x-api-key|api-key)(\s*:\s*)(bearer\s+|basic\s+)?[^\s'"]+/gi,
    '$1$2$3***',
  ],
  // NAME=value where the name says secret
  [
    /\b([A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*)=("[^"]*"|'[^']*'|[^\s'"]+)/gi,
    '$1=***',
  ],
  // --password x, --token=x, -p x is too ambiguous to touch
  [
    /(--?(?:password|passwd|token|secret|api-key|apikey|access-key)(?:=|\s+))("[^"]*"|'[^']*'|[^\s'"]+)/gi,
    '$1***',
  ],
  // well-known key shapes
  [/\bsk-(?:ant-)?[A-Za-z0-9_-]{8,}/g, 'sk-***'],
  [/\b(gh[pousr]_)[A-Za-z0-9]{16,}/g, '$1***'],
  [/\bgithub_pat_[A-Za-z0-9_]{16,}/g, 'github_pat_***'],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, '$1***'],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, 'xox*-***'],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, 'AIza***'],
  [/\bnpm_[A-Za-z0-9]{30,}/g, 'npm_***'],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, 'eyJ***(jwt)'],
  [
    /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    '-----BEGIN PRIVATE KEY----- ***',
  ],
];

export function redact(text: string): string {
  let result = text;
  for (const [pattern, replacement] of RULES) result = result.replace(pattern, replacement);
  return result;
}
