import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type RequestHandler } from 'express';

/**
 * The page, built by `npm run build` (esbuild, scripts/build-dashboard.mjs) into
 * `apps/gateway/dist/dashboard-web`: the same path from `src/dashboard` and `dist/dashboard`.
 */
export const DASHBOARD_WEB_DIR = fileURLToPath(new URL('../../dist/dashboard-web/', import.meta.url));

/**
 * Strict headers: only this origin's script, style and API; the token in the address never
 * leaves in a Referer; nothing cached.
 */
const headers: RequestHandler = (_req, res, next) => {
  res.setHeader(
    'content-security-policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'no-store');
  next();
};

/** `GET /dashboard` (the page) and `/dashboard/assets/*` (its script and style). Other methods fall through to 404. */
export function mountDashboard(app: NestExpressApplication): void {
  const page = fileURLToPath(new URL('index.html', `file://${DASHBOARD_WEB_DIR}`));
  const assets = express.static(DASHBOARD_WEB_DIR, { index: false, fallthrough: true, etag: false });
  const getOnly =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) =>
      req.method === 'GET' || req.method === 'HEAD' ? handler(req, res, next) : next();
  app.use(
    '/dashboard/assets',
    getOnly((req, res, next) => headers(req, res, () => assets(req, res, next))),
  );
  app.use(
    '/dashboard',
    getOnly((req, res, next) => {
      if (req.path !== '/' && req.path !== '') return next();
      if (!existsSync(page)) {
        res.status(503).type('text/plain').send('The dashboard is not built: run npm run build');
        return;
      }
      headers(req, res, () => res.type('html').sendFile(page));
    }),
  );
}
