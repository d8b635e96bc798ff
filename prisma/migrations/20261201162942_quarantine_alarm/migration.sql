-- Quarantined stray jobs of a source queue are an alarm (issue 15).
ALTER TYPE "AlarmKind" ADD VALUE IF NOT EXISTS 'quarantine';
