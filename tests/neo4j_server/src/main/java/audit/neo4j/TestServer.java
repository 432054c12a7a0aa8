package audit.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.SettingImpl;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Neo4j 5 Community in-process, for the test suite (tests/neo4j_server/README.md).
 *
 * <p>Usage: {@code java -cp 'target/classes:target/lib/*:target/plugins/*' audit.neo4j.TestServer
 * WORKDIR PASSWORD_FILE PLUGIN_DIR [name=value ...]}
 *
 * <p>Starts a server in WORKDIR with authentication on, Bolt and HTTP on free loopback ports,
 * sets the password of user {@code neo4j} to the first line of PASSWORD_FILE (never on the
 * command line), loads the plugins in PLUGIN_DIR (APOC core; a folder that does not exist loads
 * none), applies each {@code name=value} as in neo4j.conf (e.g. {@code browser.post_connect_cmd}),
 * then prints one JSON line
 * {@code {"bolt": PORT, "http": PORT, "version": "...", "apoc": true|false}} and waits. It stops
 * cleanly on SIGTERM/SIGINT and when its standard input closes, i.e. when the parent that
 * started it dies.
 */
public final class TestServer {

    private TestServer() {
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: TestServer WORKDIR PASSWORD_FILE PLUGIN_DIR [name=value ...]");
            System.exit(2);
        }
        Path workdir = Path.of(args[0]);
        String password = Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8).get(0).strip();
        var builder = Neo4jBuilders.newInProcessBuilder(workdir)
                .withConfig(GraphDatabaseSettings.auth_enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", 0))
                .withConfig(HttpConnector.listen_address, new SocketAddress("127.0.0.1", 0))
                .withConfig(HttpConnector.enabled, true)
                // as a packaged server (neo4j.conf, the docker image): LOAD CSV reads file: URLs
                // only under the import folder, not anywhere on the machine
                .withConfig(GraphDatabaseSettings.load_csv_file_url_root, workdir.resolve("import").toAbsolutePath())
                .withConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("apoc.*"));
        if (Files.isDirectory(Path.of(args[2]))) {
            builder = builder.withConfig(GraphDatabaseSettings.plugin_dir, Path.of(args[2]).toAbsolutePath());
        }
        Map<String, Setting<Object>> declared = Config.defaults().getDeclaredSettings();
        for (String pair : Arrays.asList(args).subList(3, args.length)) {
            int eq = pair.indexOf('=');
            Setting<Object> setting = eq > 0 ? declared.get(pair.substring(0, eq)) : null;
            if (setting == null) {
                System.err.println("not a name=value of a known setting: " + pair);
                System.exit(2);
            }
            builder = builder.withConfig(setting, ((SettingImpl<Object>) setting).parse(pair.substring(eq + 1)));
        }
        Neo4j neo4j = builder.build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(neo4j), "neo4j-test-server-stop"));

        GraphDatabaseService system = neo4j.databaseManagementService().database("system");
        system.executeTransactionally("ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                Map.of("password", password));
        String version = neo4j.defaultDatabaseService()
                .executeTransactionally("CALL dbms.components() YIELD versions RETURN versions[0] AS v",
                        Map.of(), r -> r.next().get("v").toString());
        boolean apoc = neo4j.defaultDatabaseService().executeTransactionally(
                "SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'apoc.' RETURN count(*) AS n",
                Map.of(), r -> ((Number) r.next().get("n")).longValue() > 0);

        System.out.printf("{\"bolt\": %d, \"http\": %d, \"version\": \"%s\", \"apoc\": %b}%n",
                neo4j.boltURI().getPort(), neo4j.httpURI().getPort(), version, apoc);
        System.out.flush();

        waitForEndOfInput(System.in);
        System.exit(0);   // runs the shutdown hook: the database is closed cleanly
    }

    /** Shut the database down cleanly; if that hangs (a loaded machine), halt after 30 s anyway. */
    private static void stop(Neo4j neo4j) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("the database did not shut down within 30 s: halting");
            Runtime.getRuntime().halt(1);
        }, "neo4j-test-server-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        neo4j.close();
        watchdog.interrupt();
    }

    /** Blocks until the parent closes our standard input (or dies, which closes it too). */
    private static void waitForEndOfInput(InputStream in) {
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // anything written is ignored; only the end of input counts
            }
        } catch (IOException e) {
            // a broken pipe means the same as the end of input
        }
    }
}
