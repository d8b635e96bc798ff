export { append, SYSTEM_ACTOR, type AuditActor, type AuditInput } from './append';
export { verifyChain, type VerifyResult } from './verify';
export { GENESIS_HASH, canonical, eventHash } from './canonical';
