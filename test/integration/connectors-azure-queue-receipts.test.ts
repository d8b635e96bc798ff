// A recorded message whose visibility ran out before its delete: another reader holds it now, with a
// new pop receipt, and Azure answers the old receipt's delete with 400 PopReceiptMismatch (404 when the
// message is gone). Either way the message is already in Triage and reappears to be absorbed by its
// unique key: the import must go on, not fail and show the source unhealthy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRecorded } from '@/lib/connectors/azure-queue/import';
import { waitFor } from './connectors-rabbitmq-support';
import { depth, queues, startAzurite, type Azurite } from './connectors-azure-support';

let azurite: Azurite;
beforeAll(async () => {
  azurite = await startAzurite({ inMemory: true });
}, 120_000);
afterAll(async () => {
  await azurite?.stop();
});

describe('Azure queue import: deleting what was recorded', () => {
  it('goes on when another reader holds the message with a new pop receipt', async () => {
    const { poison } = await queues(azurite);
    await poison.sendMessage('{"order":1}');
    const [first] = (await poison.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 1 })).receivedMessageItems;
    expect(first).toBeDefined();
    // Its visibility runs out and a second reader takes it: the first receipt no longer matches.
    let second: NonNullable<typeof first>[] = [];
    await waitFor(
      'the message received again',
      async () => {
        second = (await poison.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 30 })).receivedMessageItems;
        return second.length === 1;
      },
      30_000,
      200,
    );
    expect(second[0]!.messageId).toBe(first!.messageId);
    expect(second[0]!.popReceipt).not.toBe(first!.popReceipt);

    await expect(deleteRecorded(poison, 'receipts', [first!])).resolves.toBeUndefined();
    // Not deleted: the second reader still holds it.
    expect(await depth(poison)).toBe(1);
    // A receipt that matches deletes it.
    await deleteRecorded(poison, 'receipts', second);
    expect(await depth(poison)).toBe(0);
  });
});
