# The demo's Sidekiq application (workers/demo-sidekiq.ts starts it): welcome mails on the queue
# "mailers", sent by a job that, like the orders handler, refuses fields it does not know while v1
# is deployed (`triage demo deploy v2` accepts them). It fails for good at once (retry: 0), so the
# job lands in Sidekiq's dead set, which Triage's "mailers-sidekiq" source imports.
require "sidekiq"

class WelcomeMailJob
  include Sidekiq::Worker
  sidekiq_options queue: "mailers", retry: 0, backtrace: true

  FIELDS = %w[user email locale].freeze

  def perform(mail)
    # The deployed version, mirrored into Redis by the demo worker.
    version = Sidekiq.redis { |c| c.get("triage_demo:handler_version") } || "v1"
    unknown = mail.keys.find { |k| !FIELDS.include?(k) }
    raise ArgumentError, "Unrecognized field \"#{unknown}\" in welcome mail for user #{mail["user"]}" if version == "v1" && unknown
  end
end
