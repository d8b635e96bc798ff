// Which stack frames are the runtime's or a library's rather than the application's, per runtime:
// the top in-app frame (stack-frame.ts) skips them, so that two call sites of one framework error
// are two clusters. A frame is a library frame by where its file lives (node_modules, site-packages,
// vendor/, GOROOT, the Go module cache, the cargo registry, deps/, gems) or, when a trace prints no
// useful path, by its namespace: the standard library and well-known frameworks, drivers and SDKs.
// Lists of names are kept here, one per runtime, and nowhere else.

/** JVM packages (Java, Kotlin, Scala, Groovy) of the platform and of well-known libraries. */
export const JVM_LIBRARY_PREFIXES = [
  'java.', 'javax.', 'jdk.', 'sun.', 'com.sun.', 'kotlin.', 'kotlinx.', 'scala.', 'groovy.', 'jakarta.',
  'org.springframework.', 'org.apache.', 'org.hibernate.', 'org.eclipse.', 'org.jboss.', 'org.glassfish.',
  'org.junit.', 'org.mockito.', 'org.slf4j.', 'ch.qos.', 'io.netty.', 'io.grpc.', 'io.micrometer.',
  'io.reactivex.', 'io.vertx.', 'reactor.', 'rx.', 'okhttp3.', 'okio.', 'retrofit2.', 'com.fasterxml.',
  'com.google.', 'com.zaxxer.', 'org.postgresql.', 'com.mysql.', 'org.mariadb.', 'software.amazon.',
  'com.amazonaws.', 'akka.', 'play.', 'feign.', 'io.opentelemetry.', 'io.ktor.', 'org.jetbrains.',
  'arrow.', 'com.squareup.', 'io.lettuce.', 'redis.clients.', 'org.redisson.', 'com.rabbitmq.',
  'org.mongodb.', 'com.mongodb.', 'org.bson.', 'io.r2dbc.', 'org.jooq.', 'org.jdbi.', 'io.quarkus.',
  'io.micronaut.', 'io.smallrye.', 'io.undertow.', 'io.dropwizard.', 'org.elasticsearch.', 'co.elastic.',
  'io.confluent.', 'org.flywaydb.', 'liquibase.', 'net.bytebuddy.', 'org.aspectj.', 'com.github.benmanes.',
  'io.github.resilience4j.', 'com.netflix.', 'io.temporal.', 'brave.', 'zipkin2.', 'com.azure.',
  'com.microsoft.', 'com.datastax.', 'org.neo4j.', 'io.nats.', 'com.stripe.', 'org.codehaus.',
  'com.thoughtworks.', 'org.yaml.', 'io.projectreactor.', 'dev.failsafe.', 'org.keycloak.', 'graphql.',
];

/** .NET namespaces of the base class library and of well-known libraries. */
export const DOTNET_LIBRARY_PREFIXES = [
  'System.', 'Microsoft.', 'Npgsql.', 'Npgsql', 'MassTransit.', 'Polly.', 'Dapper.', 'Newtonsoft.',
  'RabbitMQ.Client.', 'Confluent.Kafka.', 'Azure.', 'Amazon.', 'Google.', 'StackExchange.Redis.',
  'MongoDB.', 'Grpc.', 'MediatR.', 'NServiceBus.', 'Hangfire.', 'Serilog.', 'NLog.', 'log4net.',
  'AutoMapper.', 'FluentValidation.', 'Pomelo.', 'MySqlConnector.', 'Castle.', 'Quartz.', 'Refit.',
  'RestSharp.', 'Elastic.', 'Nest.', 'Orleans.', 'Akka.', 'Rebus.', 'Wolverine.', 'Marten.', 'Autofac.',
  'Swashbuckle.', 'Stripe.', 'Twilio.', 'HotChocolate.', 'Oracle.ManagedDataAccess.',
];

/** Node: files of dependencies and of the runtime itself. */
export function isJsLibraryFile(file: string): boolean {
  return (
    file.includes('node_modules') ||
    file.includes('node:') ||
    file.startsWith('internal/') ||
    file.includes('<anonymous>') ||
    file === 'native' ||
    file.startsWith('bun:') ||
    file.startsWith('deno:') ||
    file.startsWith('ext:') ||
    // Core modules of older Node print a bare file name (`events.js:315:20`).
    !/[/\\]/.test(file)
  );
}

/** Python: installed packages, the standard library, frozen and generated code. */
export const isPythonLibraryFile = (file: string): boolean =>
  /site-packages|dist-packages|__pypackages__|[/\\]lib[/\\]python\d|[/\\]Lib[/\\]|^<frozen |^<string>$|[/\\]usr[/\\]lib[/\\]/.test(file);

/** Go standard-library packages: the first element of their import path (which has no dot). */
const GO_STD_PACKAGES = new Set([
  'archive', 'bufio', 'builtin', 'bytes', 'cmp', 'compress', 'container', 'context', 'crypto', 'database',
  'debug', 'embed', 'encoding', 'errors', 'expvar', 'flag', 'fmt', 'go', 'hash', 'html', 'image', 'index',
  'internal', 'io', 'iter', 'log', 'maps', 'math', 'mime', 'net', 'os', 'path', 'plugin', 'reflect',
  'regexp', 'runtime', 'slices', 'sort', 'strconv', 'strings', 'sync', 'syscall', 'testing', 'text',
  'time', 'unicode', 'unique', 'unsafe', 'panic', 'created',
]);

/** Go modules of well-known frameworks, drivers and SDKs, for builds that print module paths (`-trimpath`). */
const GO_LIBRARY_MODULES = [
  'golang.org/x/', 'google.golang.org/', 'cloud.google.com/go', 'github.com/gin-gonic/', 'github.com/labstack/echo',
  'github.com/gorilla/', 'github.com/go-chi/', 'github.com/gofiber/', 'github.com/valyala/', 'github.com/jackc/',
  'github.com/lib/pq', 'github.com/go-sql-driver/', 'gorm.io/', 'github.com/jmoiron/sqlx', 'github.com/segmentio/',
  'github.com/IBM/sarama', 'github.com/Shopify/sarama', 'github.com/twmb/franz-go', 'github.com/confluentinc/',
  'github.com/nats-io/', 'github.com/rabbitmq/', 'github.com/streadway/amqp', 'github.com/aws/', 'github.com/Azure/',
  'github.com/redis/', 'github.com/go-redis/', 'go.mongodb.org/', 'go.uber.org/', 'go.opentelemetry.io/',
  'github.com/sirupsen/logrus', 'github.com/rs/zerolog', 'github.com/grpc-ecosystem/', 'github.com/hashicorp/',
  'github.com/spf13/', 'github.com/stretchr/', 'github.com/pkg/errors', 'go.temporal.io/', 'github.com/ThreeDotsLabs/watermill',
];

export function isGoLibraryFrame(fn: string, file: string): boolean {
  if (/[/\\]pkg[/\\]mod[/\\]|[/\\]vendor[/\\]|^vendor[/\\]|@v\d|GOROOT|[/\\]go[/\\]src[/\\](?:runtime|internal)[/\\]|[/\\](?:usr[/\\](?:local[/\\])?(?:lib[/\\])?go(?:-[\d.]+)?|goroot)[/\\]src[/\\]/.test(file)) return true;
  if (GO_LIBRARY_MODULES.some((m) => fn.startsWith(m))) return true;
  // `net/http.(*conn).serve`, `runtime.goexit`, `encoding/json.Unmarshal`: a dotless first element.
  const end = fn.search(/[/.(]/);
  const first = end < 0 ? fn : fn.slice(0, end);
  return GO_STD_PACKAGES.has(first) && (end < 0 || fn[end] === '/' || fn[end] === '.');
}

/** Ruby: gems, bundler, the standard library and the VM's internal code. */
export const isRubyLibraryFile = (file: string): boolean =>
  /[/\\]gems[/\\]|[/\\]lib[/\\]ruby[/\\]|[/\\]rubygems[/\\]|[/\\]bundler[/\\]|vendor[/\\]bundle|^<internal:/.test(file);

/** PHP: Composer's vendor directory, PHAR archives, and the engine's own frames. */
export const isPhpLibraryFile = (file: string): boolean => /(?:^|[/\\])vendor[/\\]|^phar:|^\[internal/.test(file);

/** Rust crates of the toolchain and of the ecosystem's frameworks, by the first path segment of the symbol. */
const RUST_LIBRARY_CRATES = new Set([
  'std', 'core', 'alloc', 'tokio', 'futures', 'futures_util', 'futures_core', 'hyper', 'axum', 'tower',
  'tower_http', 'tracing', 'tracing_subscriber', 'serde', 'serde_json', 'sqlx', 'sqlx_core', 'sqlx_postgres',
  'reqwest', 'actix_web', 'actix_rt', 'actix_http', 'rdkafka', 'lapin', 'async_std', 'async_trait', 'backtrace',
  'anyhow', 'eyre', 'color_eyre', 'tonic', 'diesel', 'redis', 'mongodb', 'aws_sdk_s3', 'aws_smithy_runtime',
  'rocket', 'warp', 'h2', 'rustls', 'native_tls', 'deadpool', 'bb8', 'r2d2', 'tokio_postgres', 'postgres',
  'rust_begin_unwind', '__rust_start_panic', '__rust_begin_short_backtrace', '__rust_end_short_backtrace',
  '_start', '__libc_start_main', '__libc_start_call_main', 'main',
]);

export function isRustLibraryFrame(fn: string, file: string): boolean {
  if (/^\/rustc\/|[/\\]\.?cargo[/\\](?:registry|git)[/\\]|[/\\]library[/\\](?:std|core|alloc)[/\\]|[/\\]rustlib[/\\]/.test(file)) return true;
  // `<T as core::future::Future>::poll`, `core::result::Result<T,E>::unwrap`: the crate is the first segment.
  const name = fn.replace(/^<(?:[^<>]|<[^<>]*>)* as /, '').replace(/^</, '');
  const end = name.indexOf('::');
  const crate = end < 0 ? name : name.slice(0, end);
  return RUST_LIBRARY_CRATES.has(crate) || crate.startsWith('aws_');
}

/** OTP applications (Elixir's and Erlang's own, and well-known libraries), printed as `(app vsn)`. */
const BEAM_LIBRARY_APPS = new Set([
  'elixir', 'stdlib', 'kernel', 'erts', 'logger', 'iex', 'mix', 'eex', 'ex_unit', 'crypto', 'ssl', 'inets',
  'public_key', 'ecto', 'ecto_sql', 'db_connection', 'postgrex', 'myxql', 'phoenix', 'phoenix_live_view',
  'phoenix_pubsub', 'plug', 'plug_cowboy', 'cowboy', 'ranch', 'bandit', 'thousand_island', 'broadway',
  'broadway_kafka', 'broadway_rabbitmq', 'broadway_sqs', 'gen_stage', 'oban', 'jason', 'tesla', 'finch', 'mint',
  'hackney', 'httpoison', 'req', 'ex_aws', 'ex_aws_s3', 'amqp', 'brod', 'kafka_ex', 'redix', 'telemetry',
  'absinthe', 'nimble_pool', 'castore', 'decimal', 'timex', 'swoosh', 'bamboo', 'quantum', 'commanded',
]);

/** Elixir and Erlang module namespaces of the same, for traces that print no application. */
const BEAM_LIBRARY_MODULES = [
  'Enum.', 'Kernel.', 'GenServer.', 'Task.', 'Stream.', 'Agent.', 'Process.', 'Registry.', 'Supervisor.',
  'Map.', 'List.', 'String.', 'Keyword.', 'Ecto.', 'DBConnection.', 'Postgrex.', 'Phoenix.', 'Plug.',
  'Broadway.', 'GenStage.', 'Oban.', 'Jason.', 'Tesla.', 'Finch.', 'Mint.', 'ExAws.', 'Redix.', 'AMQP.',
  'Absinthe.', ':',
];

export function isBeamLibraryFrame(app: string, file: string, fn: string): boolean {
  if (app && BEAM_LIBRARY_APPS.has(app)) return true;
  if (/(?:^|[/\\])deps[/\\]|\.erl$/.test(file)) return true;
  return !app && BEAM_LIBRARY_MODULES.some((m) => fn.startsWith(m));
}
