#!/usr/bin/env node
// chalk and cli-highlight ignore NO_COLOR; map it before anything imports them.
if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') process.env.FORCE_COLOR = '0';

const {register} = await import('tsx/esm/api');
register();
const {main} = await import('../source/cli.ts');
process.exitCode = await main(process.argv.slice(2));
