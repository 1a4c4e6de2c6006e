import { ErrorName } from '@tradeinfra/contracts';
import { ServiceError } from './service-error.js';

enum Code {
  Missing = 'MISSING',
  Taken = 'TAKEN',
}

class ThingError extends ServiceError<Code> {
  protected errorName(code: Code): ErrorName {
    switch (code) {
      case Code.Missing:
        return ErrorName.NotFound;
      case Code.Taken:
        return ErrorName.Conflict;
    }
  }
}

describe('ServiceError', () => {
  it('keeps its code, message and details, and sends the wire name of its code', () => {
    const err = new ThingError(Code.Taken, 'Thing 7 is taken', { reason: 'taken' });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ code: Code.Taken, message: 'Thing 7 is taken', details: { reason: 'taken' } });
    expect(err.toPayload()).toEqual({ name: ErrorName.Conflict, message: 'Thing 7 is taken', details: { reason: 'taken' } });
  });

  it('has null details unless given', () => {
    expect(new ThingError(Code.Missing, 'No thing 7').toPayload()).toEqual({ name: ErrorName.NotFound, message: 'No thing 7', details: null });
  });
});
