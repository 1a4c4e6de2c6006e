import { CreateOrderflow1765200000000 } from './1765200000000-CreateOrderflow.js';

/** Every migration of the orderflow schema, oldest first. */
export const migrations = [CreateOrderflow1765200000000];
