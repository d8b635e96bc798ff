export { append, SYSTEM_ACTOR, type AuditActor, type AuditInput } from './append';
export { writeSetting } from './setting';
export { verifyChain, type VerifyResult, type VerifyOptions } from './verify';
export { GENESIS_HASH, canonical, eventHash, type HashedFields } from './canonical';
export { writeCheckpoint, type CheckpointResult } from './checkpoint';
export { checkpointFile, readCheckpoints, type Checkpoint } from './checkpoint-file';
