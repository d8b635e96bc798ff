// The top in-app frame skips each runtime's framework and standard-library frames
// (lib/clustering/frame-libraries.ts), so that one framework error raised from two call sites of
// the application is two causes. One trace per runtime, written in that runtime's own format.
import { describe, expect, it } from 'vitest';
import { fingerprint } from '@/lib/clustering/fingerprint';
import { topInAppFrame } from '@/lib/clustering/stack-frame';

// One trace per runtime, a line each; the table below says which frame each must yield.
type Trace = readonly string[];

const NODE: Trace = [
  'AxiosError: timeout of 5000ms exceeded',
  '    at RedirectableRequest.handleRequestTimeout (/app/node_modules/axios/lib/adapters/http.js:630:16)',
  '    at RedirectableRequest.emit (node:events:519:28)',
  '    at Timeout.<anonymous> (/app/node_modules/.pnpm/follow-redirects@1.15.6/node_modules/follow-redirects/index.js:221:12)',
  '    at JSON.parse (<anonymous>)',
  '    at async OrderSync.push (/app/dist/sync/order-sync.js:41:7)',
  '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
];

const JVM: Trace = [
  'com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException: Unrecognized field "sku"',
  '\tat com.fasterxml.jackson.databind.DeserializationContext.handleUnknownProperty(DeserializationContext.java:1153)',
  '\tat org.hibernate.internal.SessionImpl.find(SessionImpl.java:2410)',
  '\tat org.springframework.aop.framework.CglibAopProxy$DynamicAdvisedInterceptor.intercept(CglibAopProxy.java:751)',
  '\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)',
  '\tat java.base/java.lang.Thread.run(Native Method)',
  '\tat com.shop.refunds.RefundListener.onRefund(RefundListener.java:58)',
  '\tat org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer.doInvokeRecordListener(KafkaMessageListenerContainer.java:2900)',
];

const JVM_LAMBDA: Trace = [
  'java.net.SocketTimeoutException: Read timed out',
  '\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)',
  '\tat okhttp3.internal.connection.RealCall.execute(RealCall.kt:154)',
  '\tat com.shop.pricing.PriceClient.lambda$quote$0(PriceClient.java:41) ~[app.jar:1.0]',
  '\tat com.shop.orders.OrderListener.onMessage(OrderListener.java:97)',
];

const KOTLIN: Trace = [
  'io.ktor.client.plugins.HttpRequestTimeoutException: Request timeout has expired',
  '\tat io.ktor.client.plugins.HttpTimeoutKt$HttpTimeout$2$1$killer$1.invokeSuspend(HttpTimeout.kt:165)',
  '\tat kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(ContinuationImpl.kt:33)',
  '\tat kotlinx.coroutines.DispatchedTask.run(DispatchedTask.kt:108)',
  '\tat com.acme.billing.InvoiceService$issue$2.invokeSuspend(InvoiceService.kt:57)',
  '\tat kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.runWorker(CoroutineScheduler.kt:584)',
];

const PYTHON: Trace = [
  'Traceback (most recent call last):',
  '  File "/usr/local/lib/python3.12/site-packages/celery/app/trace.py", line 453, in trace_task',
  '    R = retval = fun(*args, **kwargs)',
  '  File "/srv/app/shipping/tasks.py", line 88, in book_pickup',
  '    resp = session.post(url, json=body, timeout=10)',
  '  File "/usr/local/lib/python3.12/site-packages/requests/sessions.py", line 703, in send',
  '    r = adapter.send(request, **kwargs)',
  '  File "/usr/local/lib/python3.12/http/client.py", line 1331, in request',
  '    self._send_request(method, url, body, headers, encode_chunked)',
  '  File "<frozen codecs>", line 322, in decode',
  'requests.exceptions.ConnectionError: Connection refused',
];

const PYTHON_APP_ONLY: Trace = [
  'Traceback (most recent call last):',
  '  File "/srv/app/handlers/catalog.py", line 88, in handle',
  '    sku = payload[key]',
  '  File "/srv/app/catalog/mapper.py", line 14, in to_item',
  '    return Item(sku=row[key])',
  '  File "/usr/local/lib/python3.12/site-packages/pydantic/main.py", line 171, in __init__',
  "KeyError: 'SKU'",
];

const GO: Trace = [
  'panic: ERROR: deadlock detected (SQLSTATE 40P01)',
  '',
  'goroutine 42 [running]:',
  'github.com/jackc/pgx/v5/pgconn.(*PgConn).receiveMessage(0xc000123456)',
  '\t/go/pkg/mod/github.com/jackc/pgx/v5@v5.5.2/pgconn/pgconn.go:512 +0x1c4',
  'database/sql.(*DB).QueryContext(...)',
  '\t/opt/go/src/database/sql/sql.go:1728 +0x5e',
  'encoding/json.Unmarshal({0xc0001, 0x1c})',
  '\t/usr/local/go/src/encoding/json/decode.go:107 +0x2a',
  'github.com/segmentio/kafka-go.(*Reader).run(...)',
  '\t/build/vendor/github.com/segmentio/kafka-go/reader.go:301 +0x9a',
  'github.com/gin-gonic/gin.(*Context).Next(...)',
  '\tgithub.com/gin-gonic/gin@v1.9.1/context.go:174 +0x7a',
  'github.com/acme/ledger/internal/posting.(*Writer).Post(0xc0002)',
  '\t/build/internal/posting/writer.go:77 +0xa82',
  'runtime.goexit()',
  '\t/usr/local/go/src/runtime/asm_amd64.s:1650 +0x1',
];

const DOTNET: Trace = [
  'Microsoft.EntityFrameworkCore.DbUpdateException: An error occurred while saving the entity changes.',
  '   at Microsoft.EntityFrameworkCore.Update.ReaderModificationCommandBatch.ExecuteAsync(IRelationalConnection connection, CancellationToken cancellationToken)',
  '   at Npgsql.EntityFrameworkCore.PostgreSQL.Storage.Internal.NpgsqlExecutionStrategy.ExecuteAsync[TState,TResult](TState state, Func`4 operation, CancellationToken cancellationToken)',
  '   at System.Threading.Tasks.Task.ThrowIfExceptional(Boolean includeTaskCanceledExceptions)',
  '   at Polly.AsyncPolicy.ExecuteAsync(Func`2 action, Context context, CancellationToken cancellationToken) in /_/src/Polly/AsyncPolicy.cs:line 42',
  '   at Acme.Orders.Handlers.OrderPlacedConsumer.Consume(ConsumeContext`1 context) in /src/Orders/Handlers/OrderPlacedConsumer.cs:line 31',
  '--- End of stack trace from previous location ---',
  '   at MassTransit.Middleware.MethodConsumerMessageFilter`2.Send(ConsumerConsumeContext`2 context, IPipe`1 next)',
];

const RUBY: Trace = [
  "/usr/local/bundle/gems/activerecord-7.1.3/lib/active_record/validations.rb:84:in 'ActiveRecord::Validations#raise_validation_error'",
  "from /usr/local/lib/ruby/3.3.0/net/http.rb:1603:in 'request'",
  "from /usr/local/lib/ruby/3.3.0/bundler/friendly_errors.rb:117:in 'with_friendly_errors'",
  "from <internal:kernel>:187:in 'loop'",
  "from /app/app/models/subscription.rb:41:in 'Subscription#renew!'",
  "from /usr/local/bundle/gems/sidekiq-7.2.1/lib/sidekiq/processor.rb:202:in 'Sidekiq::Processor#execute_job'",
];

const PHP: Trace = [
  '#0 /var/www/html/vendor/laravel/framework/src/Illuminate/Database/Connection.php(760): Illuminate\\Database\\Connection->runQueryCallback()',
  '#1 /var/www/html/vendor/laravel/framework/src/Illuminate/Database/Query/Builder.php(3591): Illuminate\\Database\\Query\\Builder->update()',
  '#2 [internal function]: call_user_func_array()',
  '#3 /var/www/html/app/Jobs/SyncStock.php(44): App\\Jobs\\SyncStock->handle()',
  '#4 /var/www/html/vendor/laravel/framework/src/Illuminate/Container/BoundMethod.php(36): Illuminate\\Container\\BoundMethod::call()',
  '#5 {main}',
];

const RUST: Trace = [
  "thread 'tokio-runtime-worker' panicked at src/consumer.rs:42:18:",
  'called `Result::unwrap()` on an `Err` value: PoolTimedOut',
  'stack backtrace:',
  '   0: rust_begin_unwind',
  '             at /rustc/07dca489ac2d933c78d3c5158e3f43beefeb02ce/library/std/src/panicking.rs:645:5',
  '   1: core::panicking::panic_fmt',
  '             at /rustc/07dca489ac2d933c78d3c5158e3f43beefeb02ce/library/core/src/panicking.rs:72:14',
  '   2: core::result::Result<T,E>::unwrap',
  '             at /rustc/07dca489ac2d933c78d3c5158e3f43beefeb02ce/library/core/src/result.rs:1073:23',
  '   3: <sqlx_core::pool::inner::PoolInner<DB> as core::ops::Drop>::drop',
  '   4: ledger_worker::consumer::handle_posting',
  '             at ./src/consumer.rs:42:18',
  '   5: tokio::runtime::task::core::Core<T,S>::poll',
  '             at /usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.36.0/src/runtime/task/core.rs:328:17',
];

const ELIXIR: Trace = [
  '** (Ecto.NoResultsError) expected at least one result but got none in query:',
  '    (ecto 3.11.1) lib/ecto/repo/queryable.ex:164: Ecto.Repo.Queryable.one!/3',
  '    (elixir 1.16.1) lib/enum.ex:987: Enum."-each/2-lists^foreach/1-0-"/2',
  '    (telemetry 1.2.1) /app/deps/telemetry/src/telemetry.erl:321: :telemetry.span/3',
  '    (shop 0.4.0) lib/shop/returns.ex:27: Shop.Returns.accept/2',
  '    (broadway 1.0.7) lib/broadway/topology/processor_stage.ex:168: Broadway.Topology.ProcessorStage.handle_messages/4',
  '    (stdlib 5.2) gen_server.erl:1095: :gen_server.try_handle_info/3',
];

describe('top in-app frame, per runtime', () => {
  it.each([
    {
      name: 'Node: skips node_modules, node: internals and V8 built-ins',
      trace: NODE,
      frame: { fn: 'OrderSync.push', file: 'dist/sync/order-sync.js' },
    },
    {
      name: 'JVM: skips the JDK, Spring, Jackson, Hibernate and the module prefix',
      trace: JVM,
      frame: { fn: 'com.shop.refunds.RefundListener.onRefund', file: 'RefundListener.java' },
    },
    {
      name: "JVM: masks a lambda's number, skipping the platform and okhttp",
      trace: JVM_LAMBDA,
      frame: { fn: 'com.shop.pricing.PriceClient.lambda$quote$<*>', file: 'PriceClient.java' },
    },
    {
      name: 'Kotlin: skips coroutine machinery and Ktor, keeps the suspend lambda of the app',
      trace: KOTLIN,
      frame: { fn: 'com.acme.billing.InvoiceService$issue$<*>.invokeSuspend', file: 'InvoiceService.kt' },
    },
    {
      name: 'Python: skips site-packages, the standard library and frozen modules (innermost last)',
      trace: PYTHON,
      frame: { fn: 'book_pickup', file: 'app/shipping/tasks.py' },
    },
    {
      name: 'Python: the innermost of two application frames, skipping site-packages',
      trace: PYTHON_APP_ONLY,
      frame: { fn: 'to_item', file: 'app/catalog/mapper.py' },
    },
    {
      name: 'Go: skips GOROOT, std-lib packages by name, the module cache, vendor/ and -trimpath module paths',
      trace: GO,
      frame: { fn: 'github.com/acme/ledger/internal/posting.(*Writer).Post', file: 'internal/posting/writer.go' },
    },
    {
      name: '.NET: skips System, Microsoft and library namespaces',
      trace: DOTNET,
      frame: { fn: 'Acme.Orders.Handlers.OrderPlacedConsumer.Consume', file: 'Orders/Handlers/OrderPlacedConsumer.cs' },
    },
    {
      name: 'Ruby: skips gems, bundler and the standard library',
      trace: RUBY,
      frame: { fn: 'Subscription#renew!', file: 'app/models/subscription.rb' },
    },
    {
      name: 'PHP: skips vendor/ (Laravel, Symfony) and internal functions',
      trace: PHP,
      frame: { fn: 'App\\Jobs\\SyncStock->handle', file: 'app/Jobs/SyncStock.php' },
    },
    {
      name: 'Rust: skips std/core/alloc, the rustc sources and crates from the cargo registry',
      trace: RUST,
      frame: { fn: 'ledger_worker::consumer::handle_posting', file: 'src/consumer.rs' },
    },
    {
      name: 'Elixir: skips OTP, Elixir, Ecto, Broadway and deps/, keeps the application',
      trace: ELIXIR,
      frame: { fn: 'Shop.Returns.accept/2', file: 'lib/shop/returns.ex' },
    },
  ])('$name', ({ trace, frame }) => {
    expect(topInAppFrame(trace.join('\n'))).toEqual(frame);
  });

  it('.NET: a trace without symbols has frames without a file', () => {
    const noSymbols =
      'System.Collections.Generic.KeyNotFoundException: x\n   at System.Collections.Generic.Dictionary`2.get_Item(TKey key)\n   at Acme.Orders.Routing.RegionRouter.Resolve(String region)';
    expect(topInAppFrame(noSymbols)).toEqual({ fn: 'Acme.Orders.Routing.RegionRouter.Resolve', file: '' });
  });

  it("Rust: without a backtrace, the panic's location is the code site", () => {
    expect(topInAppFrame("thread 'main' panicked at src/split.rs:12:9:\nindex out of bounds")).toEqual({ fn: '', file: 'src/split.rs' });
  });

  it('Elixir: reads frames without the application and version prefix', () => {
    expect(topInAppFrame('    lib/enum.ex:987: Enum.map/2\n    lib/shop/orders.ex:12: Shop.Orders.place/1')).toEqual({
      fn: 'Shop.Orders.place/1',
      file: 'lib/shop/orders.ex',
    });
  });

  it('one framework error from two call sites is two fingerprints, from one call site one', () => {
    const at = (site: string, line: number) =>
      fingerprint({
        type: 'Ecto.NoResultsError',
        message: 'expected at least one result but got none in query',
        stack: `** (Ecto.NoResultsError) x\n    (ecto 3.11.1) lib/ecto/repo/queryable.ex:${line}: Ecto.Repo.Queryable.one!/3\n    (shop 0.4.0) ${site}:${line}: Shop.X.y/1`,
      }).key;
    expect(at('lib/shop/orders.ex', 10)).toBe(at('lib/shop/orders.ex', 99));
    expect(at('lib/shop/orders.ex', 10)).not.toBe(at('lib/shop/returns.ex', 10));
  });
});
