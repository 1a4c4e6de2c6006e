import type { PipeTransform } from '@nestjs/common';
import { parseInput } from '@tradeinfra/contracts';
import type { z } from 'zod';

/** Validates a body/param with a contracts schema; failures become 400 ValidationError. */
export class ContractPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    return parseInput(this.schema, value);
  }
}
