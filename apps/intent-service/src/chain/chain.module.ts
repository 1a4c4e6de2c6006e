import { Module } from '@nestjs/common';
import { ChainHeads } from './chain-heads.js';
import { SimulationClient } from './simulation-client.js';

/** Chain access shared by launch watching and execution: the heads seen, the simulation service. */
@Module({
  providers: [ChainHeads, SimulationClient],
  exports: [ChainHeads, SimulationClient],
})
export class ChainModule {}
