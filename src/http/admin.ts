import express, { Express } from 'express';
import { join } from 'node:path';
import { packageRoot } from '../kernel/package-root';
import { methodGuard } from './mount';
import { sendError } from './problem';

/** What the admin page needs to know that the public API does not say. */
export interface AdminSettings {
  /** Where a dispatch's workflow is shown, e.g. `http://127.0.0.1:8233` (the dev server's UI). */
  readonly temporalUiUrl: string;
  readonly namespace: string;
  /** API keys configured: the page asks for one. */
  readonly keysRequired: boolean;
}

const ASSETS = join(packageRoot(), 'web', 'admin');

/**
 * Scripts, styles and data only from this origin; no inline script, no framing. The page builds
 * its DOM with textContent, never innerHTML, so stored strings cannot become markup either.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The admin interface at `/admin/`: static ES modules from web/admin (no build step), talking
 * only to the public API with the caller's own key. Public like `/docs`: it holds no data.
 */
export const mountAdmin = (app: Express, settings: AdminSettings) => {
  const config = JSON.stringify({
    temporal_ui_url: settings.temporalUiUrl,
    namespace: settings.namespace,
    keys_required: settings.keysRequired,
  });
  app.use('/admin', (req, res, next) => {
    res.set({
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    });
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodGuard(['GET'])(req, res, next);
    next();
  });
  app.get('/admin/config.json', (_req, res) => {
    res.type('json').send(config);
  });
  app.use('/admin', express.static(ASSETS, { index: 'index.html', redirect: true, dotfiles: 'ignore', etag: true }));
  app.use('/admin', (req, res) => sendError(res, { _tag: 'NoAdminAsset', path: req.path }));
};
