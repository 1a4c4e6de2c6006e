export * from './bench-run.js';
export * from './children.js';
export * from './cpu.js';
export * from './hardhat.js';
export * from './http.js';
export * from './log.js';
export * from './repositories.js';
export * from './report.js';
