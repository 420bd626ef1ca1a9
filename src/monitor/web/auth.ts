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
