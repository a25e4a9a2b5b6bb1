// A Java backend calling `mdchunk serve` with the JDK alone (java.net.http, Java 11+):
// chunk a document, then search the served index. Run it as a single source file:
//
//     java docs/Client.java http://127.0.0.1:8765 "replica lag"
//
// The bearer token, when the server has one, comes from MDCHUNK_SERVE_TOKEN. Each answer is
// printed as the JSON line the server sent; a real client would read it with its JSON library.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

public class Client {
    public static void main(String[] args) throws Exception {
        String base = args[0];
        String query = args.length > 1 ? args[1] : "install";
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String document = "# Guide\\n\\n## Install\\n\\nRun `pip install mdchunk`.\\n\\n## Use\\n\\nCall chunk_markdown.\\n";
        System.out.println(post(http, base + "/v1/chunk",
                "{\"text\": \"" + document + "\", \"name\": \"guide.md\", \"max_tokens\": 64, \"overlap_tokens\": 0}"));
        System.out.println(post(http, base + "/v1/search",
                "{\"query\": \"" + escape(query) + "\", \"k\": 3, \"mode\": \"hybrid\"}"));
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
