// Every workflow the worker runs; the worker bundles this file.
export { ping } from './ping/workflow';
