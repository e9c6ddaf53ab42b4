# CPU image: `docker build -t hawiya .` then `docker run -p 8080:8080 -v hawiya-data:/var/lib/hawiya hawiya`
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin hawiya

FROM debian:bookworm-slim
RUN useradd --system --home /var/lib/hawiya hawiya && mkdir -p /var/lib/hawiya && chown hawiya /var/lib/hawiya
COPY --from=build /src/target/release/hawiya /usr/local/bin/hawiya
COPY --from=build /src/models /opt/hawiya/models
USER hawiya
WORKDIR /var/lib/hawiya
ENV HAWIYA_MODEL_DIR=/opt/hawiya/models/recognizer \
    HAWIYA_DATA_DIR=/var/lib/hawiya
EXPOSE 8080
VOLUME ["/var/lib/hawiya"]
ENTRYPOINT ["hawiya"]
CMD ["serve"]
