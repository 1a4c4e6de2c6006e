import { Module } from '@nestjs/common';
import { CaptureModule } from '../capture/capture.module.js';
import { IntakeModule } from '../intake/intake.module.js';
import { Auctioneer } from './auctioneer.js';
import { BundleSimulator } from './bundle-simulator.js';
import { BundlesController } from './bundles.controller.js';
import { BundlesRepository } from './bundles.repository.js';
import { BundlesService } from './bundles.service.js';
import { ChainLoop } from './chain-loop.js';
import { SubmissionsRepository } from './submissions.repository.js';

/** Searchers' bundles, the auction rounds, and each chain's loop. */
@Module({
  imports: [IntakeModule, CaptureModule],
  controllers: [BundlesController],
  providers: [BundlesService, BundlesRepository, SubmissionsRepository, BundleSimulator, Auctioneer, ChainLoop],
})
export class AuctionModule {}
