import { differentialSuite } from './differential/suite.js';

// Osaka, chain id 1, mainnet-like block numbers and time: the service picks the fork itself.
differentialSuite('osaka');
