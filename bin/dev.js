#!/usr/bin/env -S node --import tsx
// Development entry: runs the TypeScript sources directly (needs the dev dependency tsx).
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
