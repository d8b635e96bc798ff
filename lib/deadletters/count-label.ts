// "1 dead letter", "1,204 dead letters": the count as the pages and their answers say it.
export const deadLetterCount = (n: number) => `${n.toLocaleString('en')} dead letter${n === 1 ? '' : 's'}`;
