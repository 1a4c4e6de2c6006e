#!/usr/bin/env node
// Builds the customer dashboard page (src/dashboard/web: preact + htm) into dist/dashboard-web:
// one bundled, minified script, its style and the page. Nothing is fetched at run time.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'dashboard', 'web');
const out = join(root, 'dist', 'dashboard-web');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(src, 'app.js')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  outfile: join(out, 'app.js'),
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(src, 'app.css'), join(out, 'app.css'));
copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
