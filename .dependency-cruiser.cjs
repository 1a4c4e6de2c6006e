// Module dependency rules, checked by `npm run lint` (dependency-cruiser, installed in tools/lint).
// Why these rules: docs/design/module-layers.md. Production code only: specs and src/test/ are excluded.
const INTENT = '^apps/intent-service/src/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included: a cycle makes load order matter and hides which module depends on which.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'chain-is-a-leaf',
      comment: 'chain/ is the chain access both launch/ and execution/ use: it imports neither.',
      severity: 'error',
      from: { path: `${INTENT}chain/` },
      to: { path: `${INTENT}(launch|execution)/` },
    },
    {
      name: 'execution-does-not-import-launch',
      comment: 'launch/ hands launches to execution/; nothing points back (the pending-launch watcher registers a callback instead).',
      severity: 'error',
      from: { path: `${INTENT}execution/` },
      to: { path: `${INTENT}launch/` },
    },
    {
      name: 'launch-enters-execution-through-the-intake',
      comment: 'launch/ reaches execution/ only through execution/launch-intake.ts (LaunchIntake and what it re-exports), and Nest wiring through execution.module.ts.',
      severity: 'error',
      from: { path: `${INTENT}launch/` },
      to: { path: `${INTENT}execution/`, pathNot: `${INTENT}execution/(launch-intake|execution\\.module)\\.ts$` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/|\\.spec\\.ts$|/src/test/' },
    // Type-only imports count: `import type` cycles are cycles of meaning too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
  },
};
