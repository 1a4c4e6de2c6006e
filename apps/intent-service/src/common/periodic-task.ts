/** The periodic-task runner, shared with the orderflow service (service-kit). */
export { PeriodicTask } from '@tradeinfra/service-kit';
