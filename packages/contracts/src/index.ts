export * from './errors.js';
export * from './validation.js';
export * from './subjects.js';
export * from './intents.js';
export * from './rpc.js';
export * from './simulation.js';
export * from './payouts.js';
export * from './execution.js';
