import { runDemo } from './run-demo.js'

const args = new Set(process.argv.slice(2))
const json = args.has('--json')
process.exitCode = await runDemo({
  json,
  clean: args.has('--clean'),
  color: !json && process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
  out: process.stdout,
  env: process.env,
})
