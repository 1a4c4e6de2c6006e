import { differentialSuite } from './differential/suite.js';

// Prague, fixed for the service with HARDFORK_1 (an operator's override).
differentialSuite('prague');
