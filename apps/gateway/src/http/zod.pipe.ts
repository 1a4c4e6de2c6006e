import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { ContractValidationError, parseInput } from '@tradeinfra/contracts';
import type { z } from 'zod';

/**
 * Validates a body or a path parameter with a contracts schema; failures become 400
 * ValidationError. Issues about a path parameter are named after it (`id`).
 */
export class ContractPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown, metadata: ArgumentMetadata): z.output<S> {
    try {
      return parseInput(this.schema, value);
    } catch (err) {
      if (!(err instanceof ContractValidationError) || metadata.type !== 'param' || !metadata.data) throw err;
      const name = metadata.data;
      throw new ContractValidationError(err.issues.map((i) => ({ ...i, path: i.path ? `${name}.${i.path}` : name })));
    }
  }
}
