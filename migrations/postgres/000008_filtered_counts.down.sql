DROP TABLE filtered_count_chunks;
DROP TABLE filtered_counts;
