#!/usr/bin/env node
// `svc-mcp`: the MCP server over stdio, run from its TypeScript source through tsx (a dependency).
import { register } from 'tsx/esm/api';

register();
await import('../src/stdio.ts');
