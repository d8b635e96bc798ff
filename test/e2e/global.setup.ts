// Signs each demo user in once and keeps the storage state (scripts/e2e.mjs seeded the data).
import { test as setup, expect } from '@playwright/test';
import { DEMO_PASSWORD, DEMO_USERS } from '../../prisma/seed';
import { stateFile } from './helpers';

// Each user's sign-in is its own: they spread over the workers (with the accessibility seed).
setup.describe.configure({ mode: 'parallel' });

for (const u of DEMO_USERS) {
  setup(`sign in ${u.email}`, async ({ page }) => {
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill(u.email);
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByTestId('whoami')).toHaveText(u.email);
    await page.context().storageState({ path: stateFile(u.email) });
  });
}
