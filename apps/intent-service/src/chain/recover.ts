/** libsecp256k1 recovery and personal_sign, shared with the orderflow service (service-kit). */
export { personalSign, recoverAddress, recoverSigner } from '@tradeinfra/service-kit';
