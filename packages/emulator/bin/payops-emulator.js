#!/usr/bin/env node
// payops-emulator: the emulator on its own (dist/ is made by `npm run build` of this package).
import {main} from '../dist/cli.js'

process.exitCode = await main(process.argv.slice(2))
