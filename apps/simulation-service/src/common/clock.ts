/** The wall clock (CLOCK, Clock, systemClock): one definition for every process, in service-kit. */
export { CLOCK, systemClock, type Clock } from '@tradeinfra/service-kit';
