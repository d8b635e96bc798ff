// Seeds the demo data into this run's database and signs each role in once (storage states).
import { test as setup, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { DEMO_PASSWORD, DEMO_USERS } from '../../prisma/seed';
import { stateFile } from './helpers';

setup('seed demo data', () => {
  execFileSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'prisma/seed.ts'], { stdio: 'inherit' });
});

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
