// The source queue of an SQS source: the configured source queue URL, else the one queue
// ListDeadLetterSourceQueues names. SQS tells visible (ready) and not-visible (in flight) messages but
// no consumers, and the oldest message's age only through CloudWatch (ApproximateAgeOfOldestMessage
// is a metric, not a queue attribute): both stay unknown.
import { GetQueueAttributesCommand, ListDeadLetterSourceQueuesCommand } from '@aws-sdk/client-sqs';
import { ConnectorError, type ConnectorSource, type SourceQueueState } from '../types';
import type { SqsConfig, SqsSecret } from './config';
import { queueNameOf, sqsClient, sqsError } from './client';

export async function readSqsSourceQueue(source: ConnectorSource<SqsConfig, SqsSecret>, signal: AbortSignal): Promise<SourceQueueState> {
  const client = sqsClient(source);
  try {
    let url = source.config.sourceQueueUrl;
    if (!url) {
      const listed = await client
        .send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: source.config.queueUrl }), { abortSignal: signal })
        .catch((err: unknown) => {
          throw sqsError(err, source);
        });
      const urls = listed.queueUrls ?? [];
      if (urls.length !== 1) {
        throw new ConnectorError(
          'config',
          `${urls.length ? 'Several queues dead-letter' : 'No queue dead-letters'} into "${queueNameOf(source.config.queueUrl)}": set the source queue URL on the source`,
        );
      }
      url = urls[0]!;
    }
    const res = await client
      .send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }), {
        abortSignal: signal,
      })
      .catch((err: unknown) => {
        throw sqsError(err, source, url);
      });
    const a = res.Attributes ?? {};
    return {
      queue: queueNameOf(url),
      depth: Number(a.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
      consumers: null,
      oldestAgeSeconds: null,
    };
  } finally {
    client.destroy();
  }
}
