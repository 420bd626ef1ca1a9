import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to the dashboard. On loopback without a token, anyone on this machine may (as
 * with any local dev server), but the Host header must name a loopback address, so a web page
 * elsewhere cannot reach it through DNS rebinding. With a token — required off loopback — every
 * request must carry it: `Authorization: Bearer`, the `ralph_token` cookie the page gets when it
 * is opened with `?token=`, or `?token=` itself (EventSource cannot set headers).
 */

export const TOKEN_COOKIE = 'ralph_token';

/**
 * The shortest token the dashboard takes. A token guards the agent's whole output (code, paths,
 * tool calls) from anyone who can reach the port: " " or "abc" is no guard. 16 characters of a
 * random base64url string are 96 bits; the generated one has 24.
 */
export const MIN_TOKEN_LENGTH = 16;

/** Why `token` cannot guard the dashboard, or undefined when it can. */
export function tokenProblem(token: string): string | undefined {
  if (/\s/.test(token)) return 'it holds whitespace';
  if (token.length < MIN_TOKEN_LENGTH)
    return `it has ${token.length} characters, fewer than ${MIN_TOKEN_LENGTH}`;
  return undefined;
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Equal strings, compared in time independent of where they differ (digests: equal lengths). */
export function tokensMatch(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export type AuthResult =
  | { ok: true; /** Set this cookie: the token came in the URL. */ setCookie?: string }
  | { ok: false; status: 401 | 403; message: string };

export function authorize(
  request: IncomingMessage,
  url: URL,
  policy: { token: string | undefined },
): AuthResult {
  if (policy.token === undefined) {
    const host = hostName(request.headers.host ?? '');
    if (!isLoopback(host)) {
      return { ok: false, status: 403, message: `host ${host || '(none)'} is not this machine` };
    }
    return { ok: true };
  }
  const fromUrl = url.searchParams.get('token');
  const candidates = [
    bearer(request.headers.authorization),
    cookie(request.headers.cookie),
    fromUrl,
  ];
  for (const candidate of candidates) {
    if (candidate !== undefined && candidate !== null && tokensMatch(candidate, policy.token)) {
      return candidate === fromUrl
        ? {
            ok: true,
            setCookie: `${TOKEN_COOKIE}=${encodeURIComponent(candidate)}; HttpOnly; SameSite=Strict; Path=/`,
          }
        : { ok: true };
    }
  }
  return {
    ok: false,
    status: 401,
    message: 'a valid token is required (?token=… or Authorization: Bearer …)',
  };
}

function hostName(header: string): string {
  // "127.0.0.1:8080", "[::1]:8080", "localhost"
  const match = /^(\[[^\]]*\]|[^:]*)(:\d+)?$/.exec(header.trim());
  return match?.[1] ?? '';
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match?.[1]?.trim();
}

function cookie(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) {
      try {
        return decodeURIComponent(value.join('='));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
