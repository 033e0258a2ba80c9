import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.woff2': 'font/woff2' };

/** The only files /static serves: the app's own assets and the few vendor files the pages load. */
const FILES: Record<string, string> = {
  'sign.js': path.join(here, 'static/sign.js'),
  'sign.css': path.join(here, 'static/sign.css'),
  'pdfjs/pdf.min.mjs': require.resolve('pdfjs-dist/build/pdf.min.mjs'),
  'pdfjs/pdf.worker.min.mjs': require.resolve('pdfjs-dist/build/pdf.worker.min.mjs'),
  'fonts/dancing-script.woff2': require.resolve('@fontsource/dancing-script/files/dancing-script-latin-400-normal.woff2'),
};

export function staticRoutes(router: Router): void {
  const serve = (key: string, ctx: Context) => {
    const file = FILES[key];
    if (!file || !fs.existsSync(file)) {
      ctx.status = 404;
      ctx.body = 'Not found';
      return;
    }
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = fs.createReadStream(file);
  };
  router.get('/static/:file', (ctx) => serve(ctx.params.file, ctx));
  router.get('/static/:dir/:file', (ctx) => serve(`${ctx.params.dir}/${ctx.params.file}`, ctx));
}
