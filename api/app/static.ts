import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { t } from '../../lib/i18n';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const pdfjs = path.dirname(require.resolve('pdfjs-dist/package.json'));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/** Folders /static serves, each by file name only (no path can leave them). */
const FOLDERS: Record<string, { directory: string; name: RegExp }> = {
  '': { directory: path.join(here, 'browser'), name: /^[a-z0-9-]+\.(js|css)$/ },
  'pdfjs/standard_fonts': { directory: path.join(pdfjs, 'standard_fonts'), name: /^[A-Za-z0-9_-]+\.(pfb|ttf)$/ },
  'pdfjs/wasm': { directory: path.join(pdfjs, 'wasm'), name: /^[a-z0-9_]+\.(wasm|js)$/ },
  'pdfjs/cmaps': { directory: path.join(pdfjs, 'cmaps'), name: /^[A-Za-z0-9-]+\.bcmap$/ },
};

/** Single vendor files the pages load. */
const FILES: Record<string, string> = {
  'pdfjs/pdf.min.mjs': path.join(pdfjs, 'build/pdf.min.mjs'),
  'pdfjs/pdf.worker.min.mjs': path.join(pdfjs, 'build/pdf.worker.min.mjs'),
  'fonts/dancing-script.woff2': require.resolve('@fontsource/dancing-script/files/dancing-script-latin-400-normal.woff2'),
};

function locate(key: string): string | undefined {
  // Own keys only: a path naming `constructor` must not find Object's.
  if (Object.hasOwn(FILES, key)) return FILES[key];
  const slash = key.lastIndexOf('/');
  const dir = slash < 0 ? '' : key.slice(0, slash);
  const folder = Object.hasOwn(FOLDERS, dir) ? FOLDERS[dir] : undefined;
  const name = key.slice(slash + 1);
  return folder?.name.test(name) ? path.join(folder.directory, name) : undefined;
}

export function staticRoutes(router: Router): void {
  const serve = (key: string, ctx: Context) => {
    const file = locate(key);
    if (!file || !fs.existsSync(file)) {
      ctx.status = 404;
      ctx.body = t('sign.static.not_found');
      return;
    }
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = fs.createReadStream(file);
  };
  router.get('/static/:file', (ctx) => serve(ctx.params.file, ctx));
  router.get('/static/:dir/:file', (ctx) => serve(`${ctx.params.dir}/${ctx.params.file}`, ctx));
  router.get('/static/:dir/:sub/:file', (ctx) => serve(`${ctx.params.dir}/${ctx.params.sub}/${ctx.params.file}`, ctx));
}
