export * from './intent.js';
export * from './artifact.js';
export * from './deploy.js';
