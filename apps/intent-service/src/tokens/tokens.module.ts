import { Module } from '@nestjs/common';
import { ChainNodes } from '../common/chain-nodes.js';
import { TOKEN_LOOKUP_RPCS, TokenFacts } from './token-facts.js';
import { TokensRepository } from './tokens.repository.js';

/** Token facts (who deployed a token) for the intent record. */
@Module({
  providers: [{ provide: TOKEN_LOOKUP_RPCS, useFactory: (nodes: ChainNodes) => nodes.all(), inject: [ChainNodes] }, TokensRepository, TokenFacts],
  exports: [TokenFacts],
})
export class TokensModule {}
