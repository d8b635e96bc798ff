export { PAYLOAD_HEAD_BYTES, PAYLOAD_TEXT_CHARS, payloadText } from './search-text';
export { INDEX_BATCH, backlogSize, drainBacklog, indexBacklog } from './index-backlog';
export { startSearchIndexer, type SearchIndexer } from './indexer';
