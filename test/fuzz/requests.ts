// The requests the fuzzer sends, by part: the arbitraries of one run (arbitraries.ts) and the /v1
// routes' requests, the app's pages (pages.ts), headers, path segments and queries, and bodies.
export { Arbitraries, jsonSchemaOf } from './arbitraries';
export { request } from './bodies';
export { type PageRoute, pageRequests } from './pages';
export { segments } from './paths';
