export { containsSensitive, maskText, maskTextCounted, luhnValid, ibanValid, isCardNumber, type MaskedText } from './detectors';
export { parseJsonPath, visitPath, JsonPathError, JsonPathTooComplex, type PathSegment } from './json-path';
export {
  MASKED,
  MAX_MASK_BYTES,
  MAX_MASK_DEPTH,
  jsonDepthWithin,
  maskJson,
  maskJsonCounted,
  maskJsonPayload,
  maskPaths,
  hiddenByPaths,
  hidesValueAt,
  maskPayload,
  type MaskedPayload,
  type PayloadPolicy,
} from './mask-json';
export { canReveal, sensitivePathsSchema, sensitivePathsOf } from './policy';
export { bytesContainSensitive, maskStoredPayload, payloadVerdict, textVerdict, verdictMasked } from './verdict';
export { headSql, maskDeadLetterText, maskedHead, maskErrorText, type DeadLetterText } from './mask-dead-letter-text';
export { maskStoredDiff } from './mask-stored-diff';
