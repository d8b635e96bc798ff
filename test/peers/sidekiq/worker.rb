# The application whose Sidekiq Triage reads: jobs that fail for good (poison, `retry: 0`) and jobs
# that are retried once before they die. A job is fixed when its jid is in the "triage_test:fixed"
# set, or when its first argument has "fixed": true (what a redrive edit can change); a job that ran
# through is added to "triage_test:done". Started by the tests as its own process:
#   REDIS_URL=redis://127.0.0.1:6379/N sidekiq -r ./test/peers/sidekiq/worker.rb -q orders
require "sidekiq"

Sidekiq.configure_server do |config|
  # Retries come due within a second or two, not Sidekiq's default quarter-minute polling.
  config.options[:average_scheduled_poll_interval] = 1
  config.options[:poll_interval_average] = 1
  # The tests fill the dead set with 10,000 jobs; Sidekiq keeps dead_max_jobs - 1 (10,000 by default).
  config.options[:dead_max_jobs] = 100_000
end

module TriageTest
  def self.run(jid, args)
    first = args.first
    fixed = (first.is_a?(Hash) && first["fixed"] == true) || Sidekiq.redis { |c| c.sismember("triage_test:fixed", jid) }
    raise ArgumentError, "order #{first.is_a?(Hash) ? first["n"] : first.inspect} has no customer" unless fixed
    Sidekiq.redis { |c| c.sadd("triage_test:done", jid) }
  end
end

class PoisonJob
  include Sidekiq::Worker
  sidekiq_options retry: 0, backtrace: true

  def perform(*args)
    TriageTest.run(jid, args)
  end
end

class RetriedJob
  include Sidekiq::Worker
  sidekiq_options retry: 1, backtrace: true
  sidekiq_retry_in { |_count, _exception| 1 }

  def perform(*args)
    TriageTest.run(jid, args)
  end
end
