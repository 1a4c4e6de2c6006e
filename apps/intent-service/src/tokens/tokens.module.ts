import { Module } from '@nestjs/common';
import { ENV, type IntentServiceEnv } from '../config/env.js';
import { watchedChainRpcs } from '../launch/chain-rpc.js';
import { TOKEN_LOOKUP_RPCS, TokenFacts } from './token-facts.js';
import { TokensRepository } from './tokens.repository.js';

/** Token facts (who deployed a token) for the intent record. */
@Module({
  providers: [
    { provide: TOKEN_LOOKUP_RPCS, useFactory: (e: IntentServiceEnv) => watchedChainRpcs(e.watchedChains), inject: [ENV] },
    TokensRepository,
    TokenFacts,
  ],
})
export class TokensModule {}
