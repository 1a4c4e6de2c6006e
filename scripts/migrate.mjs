#!/usr/bin/env node
// Bootstraps the database (roles, schemas) and runs every service's migrations. Needs a build.
import { bootstrapAndMigrate, say, withDefaults } from './lib.mjs';

try {
  await bootstrapAndMigrate(withDefaults());
} catch (err) {
  say(`migrate failed: ${err.message}`);
  process.exit(1);
}
