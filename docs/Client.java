// A Java backend calling `mdchunk serve` with the JDK alone (java.net.http, Java 11+):
// chunk a document, then search the served index. Run it as a single source file:
//
//     java docs/Client.java http://127.0.0.1:8765 "replica lag"
//
// With a thread count (and a number of searches a thread, default 10), a backend's thread
// pool searches at once through one shared HttpClient, and the tally is printed as one JSON
// line; the server queues what exceeds its running limit rather than refusing it:
//
//     java docs/Client.java http://127.0.0.1:8765 "replica lag" 32 10
//
// The bearer token, when the server has one, comes from MDCHUNK_SERVE_TOKEN. Each answer is
// printed as the JSON line the server sent; a real client would read it with its JSON library.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class Client {
    public static void main(String[] args) throws Exception {
        String base = args[0];
        String query = args.length > 1 ? args[1] : "install";
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        if (args.length > 2) {
            pool(http, base, query, Integer.parseInt(args[2]),
                 args.length > 3 ? Integer.parseInt(args[3]) : 10);
            return;
        }
        String document = "# Guide\\n\\n## Install\\n\\nRun `pip install mdchunk`.\\n\\n## Use\\n\\nCall chunk_markdown.\\n";
        System.out.println(post(http, base + "/v1/chunk",
                "{\"text\": \"" + document + "\", \"name\": \"guide.md\", \"max_tokens\": 64, \"overlap_tokens\": 0}"));
        System.out.println(post(http, base + "/v1/search",
                "{\"query\": \"" + escape(query) + "\", \"k\": 3, \"mode\": \"hybrid\"}"));
    }

    static void pool(HttpClient http, String base, String query, int threads, int each)
            throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        List<Future<String>> calls = new ArrayList<>();
        for (int i = 0; i < threads * each; i++) {
            String body = "{\"query\": \"" + escape(query + " " + (i % 7)) + "\", \"k\": 3}";
            calls.add(workers.submit(() -> {
                try {
                    post(http, base + "/v1/search", body);
                    return null;
                } catch (Exception e) {
                    return e.getMessage();
                }
            }));
        }
        int errors = 0;
        String first = "";
        for (Future<String> call : calls) {
            String error = call.get();
            if (error != null) {
                errors++;
                first = first.isEmpty() ? error : first;
            }
        }
        workers.shutdown();
        System.out.println("{\"requests\": " + calls.size() + ", \"errors\": " + errors
                + ", \"first_error\": \"" + escape(first) + "\"}");
    }

    static String post(HttpClient http, String url, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        String token = System.getenv("MDCHUNK_SERVE_TOKEN");
        if (token != null && !token.isEmpty()) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new RuntimeException(url + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
