// Shared jest settings: TypeScript compiled by SWC to native ESM (Nest 12 is ESM-only),
// run with `node --experimental-vm-modules`. `.js` specifiers in sources map back to `.ts`.
const path = require('node:path');

module.exports = (dir) => ({
  rootDir: dir,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/e2e/**/*.spec.ts', '<rootDir>/integration/**/*.spec.ts'],
  displayName: path.relative(__dirname, dir) === 'test' ? 'test' : path.relative(__dirname, dir),
  moduleNameMapper: {
    '^@tradeinfra/contracts$': path.join(__dirname, 'packages/contracts/src/index.ts'),
    '^@tradeinfra/test-support$': path.join(__dirname, 'packages/test-support/src/index.ts'),
    '^@tradeinfra/service-kit$': path.join(__dirname, 'packages/service-kit/src/index.ts'),
    '^@tradeinfra/service-kit/plain$': path.join(__dirname, 'packages/service-kit/src/plain.ts'),
    '^@tradeinfra/executor$': path.join(__dirname, 'packages/executor/src/index.ts'),
    '^@tradeinfra/sdk$': path.join(__dirname, 'packages/sdk/src/index.ts'),
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2023',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          keepClassNames: true,
        },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  testTimeout: 60_000,
});
