// A client that sends its whole body before it reads the answer, as java.net.http does: POST
// MEGABYTES of JSON to /v1/chunk and print the status and the answer's body (test_serve_java).
//
//     java tests/java/LargeBody.java http://127.0.0.1:8765 64
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

public class LargeBody {
    public static void main(String[] args) throws Exception {
        int megabytes = Integer.parseInt(args[1]);
        byte[] body = new byte[megabytes * 1024 * 1024];
        Arrays.fill(body, (byte) 'x');
        byte[] head = "{\"text\": \"".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, body, 0, head.length);
        body[body.length - 2] = '"';
        body[body.length - 1] = '}';
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(args[0] + "/v1/chunk"))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        System.out.println(response.statusCode() + " " + response.body());
    }
}
