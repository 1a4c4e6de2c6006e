// `npm test` runs every project: unit tests beside the code, integration tests of each app
// (src/test), integration tests across the services (test/integration: no gateway), and the
// end-to-end suite (test/e2e) driving the gateway over HTTP.
module.exports = {
  testTimeout: 60_000,
  testSequencer: '<rootDir>/jest.sequencer.cjs',
  projects: [
    '<rootDir>/packages/contracts',
    '<rootDir>/packages/service-kit',
    '<rootDir>/packages/executor',
    '<rootDir>/packages/sdk',
    '<rootDir>/apps/gateway',
    '<rootDir>/apps/intent-service',
    '<rootDir>/apps/simulation-service',
    '<rootDir>/apps/payout-service',
    '<rootDir>/apps/orderflow-service',
    '<rootDir>/test',
  ],
};
