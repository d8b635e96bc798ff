// Makes the accessibility spec's data once, before its tests spread over the workers: two workers'
// beforeAll creating the same source at once would collide on its name.
import { test as setup } from '@playwright/test';
import { closeDb } from '@/lib/db';
import { seedAccessibility } from './accessibility-data';

setup.afterAll(closeDb);

setup('seed the pages of the accessibility spec', async () => {
  await seedAccessibility();
});
